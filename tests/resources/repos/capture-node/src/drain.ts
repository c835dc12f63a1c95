import { Queue } from "./queue.js";

export function drainAll<T>(q: Queue<T>): T[] {
  const out: T[] = [];
  for (let item = q.shift(); item !== undefined; item = q.shift()) out.push(item);
  return out;
}
