/**
 * `endpoints` with those that take notifications of `type` first, each group in its order: the
 * first is where a resend goes unless another is chosen.
 */
export function takersFirst<E extends { enabled_events: string[] }>(endpoints: E[], type: string): E[] {
  const takes = (e: E) => e.enabled_events.includes(type);
  return [...endpoints.filter(takes), ...endpoints.filter((e) => !takes(e))];
}
