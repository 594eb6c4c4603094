/**
 * Logger hook of the client. Events carry operation, path, request-id, attempt and timing; never bodies,
 * card data or the sign key, so any logger may receive them as they are.
 */
export type GatewayLogEvent =
  | { type: 'request'; operation: string; method: string; path: string; requestId: string; attempt: number }
  | {
      type: 'response';
      operation: string;
      requestId: string;
      attempt: number;
      httpStatus: number;
      code: string | undefined;
      durationMs: number;
    }
  | { type: 'retry'; operation: string; requestId: string; attempt: number; delayMs: number; reason: string }
  | {
      type: 'error';
      operation: string;
      requestId: string;
      attempt: number;
      error: string;
      durationMs: number;
    };

export type GatewayLogger = (event: GatewayLogEvent) => void;
