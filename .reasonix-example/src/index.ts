export { Queue, sortedByPriority } from "./queue.js";
export { byPriority, type Prioritized } from "./priority.js";
export { drainAll } from "./drain.js";
