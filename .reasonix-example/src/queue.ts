import { byPriority, type Prioritized } from "./priority.js";

/** A FIFO queue with an optional priority order. */
export class Queue<T> {
  private items: T[] = [];

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    return this.items.shift();
  }

  peek(): T | undefined {
    return this.items[0];
  }

  get size(): number {
    return this.items.length;
  }

  drain(): T[] {
    const all = this.items;
    this.items = [];
    return all;
  }
}

export function sortedByPriority<T extends Prioritized>(items: T[]): T[] {
  return [...items].sort(byPriority);
}
