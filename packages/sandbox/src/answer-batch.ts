/**
 * Answers written together once per event-loop turn. Under load one wake-up of the server reads
 * many requests; writing each answer as soon as it is ready wakes the client for every one of them,
 * and on virtual machines a cross-CPU wake-up costs more than handling a request. Writing the
 * turn's answers back to back lets the client pick them all up in one wake-up. With one request
 * in flight this adds nothing but a setImmediate.
 */
const waiting: (() => void)[] = [];
let scheduled = false;

function flush(): void {
  scheduled = false;
  const batch = waiting.splice(0);
  for (const write of batch) write();
}

export function answerThisTurn(write: () => void): void {
  waiting.push(write);
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
}
