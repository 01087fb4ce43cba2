/**
 * One page of a list read with one item more than it shows (`limit: size + 1`), so that the
 * extra item says whether an older page exists: the items shown, and the cursor of the next page
 * (the last id shown), or null when this page is the last.
 */
export function pageOf<T extends { id: string }>(
  items: readonly T[],
  size: number,
): { page: T[]; nextCursor: string | null } {
  const page = items.slice(0, size);
  return { page, nextCursor: items.length > size ? (page.at(-1)?.id ?? null) : null };
}
