import { Queue } from "./queue.js";

export function drainAll<T>(q: Queue<T>): T[] {
  return q.drain();
}
