export function parse(s: string): string {
  return s;
}
