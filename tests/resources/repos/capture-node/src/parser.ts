export function parse(text: string): string[] {
  return text.split(",").map((part) => part.trim());
}
