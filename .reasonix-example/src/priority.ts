export interface Prioritized {
  priority: number;
}

/** Higher priority first; stable for equal priorities. */
export function byPriority(a: Prioritized, b: Prioritized): number {
  return b.priority - a.priority;
}
