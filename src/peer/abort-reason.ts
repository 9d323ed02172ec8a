/** An AbortSignal's reason as a person reads it: an Error's message, a string as is, else "aborted". */
export function abortReasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  if (typeof reason === 'string') return reason;
  return 'aborted';
}
