/**
 * A LIKE pattern (with `ESCAPE '\'`) that finds `text` anywhere: `%`, `_` and `\` in it match
 * themselves rather than acting as wildcards. Null stays null (no filter).
 */
export function containsPattern(text: string | null): string | null {
  return text === null ? null : `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
