/**
 * The few request headers the gateway API reads, taken from node's `rawHeaders` in one pass.
 * `request.headers` would build a lowercased object of every header on first access, which costs
 * more than reading these five on every API request. A repeated header keeps its first value.
 */
export interface ApiHeaders {
  gatewayNo: string | undefined;
  requestId: string | undefined;
  requestTime: string | undefined;
  signInfo: string | undefined;
  contentType: string | undefined;
  /** content-length or transfer-encoding present: the request has a body (RFC 9112 §6.3). */
  hasBody: boolean;
}

export function readApiHeaders(rawHeaders: readonly string[]): ApiHeaders {
  const found: ApiHeaders = {
    gatewayNo: undefined,
    requestId: undefined,
    requestTime: undefined,
    signInfo: undefined,
    contentType: undefined,
    hasBody: false,
  };
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    const value = rawHeaders[i + 1] as string;
    // The length narrows each name to one candidate before the case-insensitive compare.
    switch (name.length) {
      case 9:
        if (found.signInfo === undefined && name.toLowerCase() === 'sign-info') found.signInfo = value;
        break;
      case 10:
        if (found.gatewayNo === undefined && name.toLowerCase() === 'gateway-no') found.gatewayNo = value;
        else if (found.requestId === undefined && name.toLowerCase() === 'request-id')
          found.requestId = value;
        break;
      case 12:
        if (found.requestTime === undefined && name.toLowerCase() === 'request-time')
          found.requestTime = value;
        else if (found.contentType === undefined && name.toLowerCase() === 'content-type')
          found.contentType = value;
        break;
      case 14:
        if (name.toLowerCase() === 'content-length') found.hasBody = true;
        break;
      case 17:
        if (name.toLowerCase() === 'transfer-encoding') found.hasBody = true;
        break;
    }
  }
  return found;
}
