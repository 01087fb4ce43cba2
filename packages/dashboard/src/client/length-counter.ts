/**
 * The counter under a field whose length has a limit (a project's or key's name, an endpoint's
 * description). The field has no `maxlength`: a browser cuts a longer paste without a word, so
 * the whole text stays in the field, the counter says how far over it is, and the server refuses
 * it with the same words. The page renders the counter as it stands; this keeps it up to date.
 */

/** What a counter reads for `length` characters of `limit`. */
export function counterText(length: number, limit: number): string {
  const over = length - limit;
  return over > 0 ? `${length} / ${limit}: ${over} too many` : `${length} / ${limit}`;
}

/** Keeps every `[data-limit]` field's counter (its `data-counter` element) in step with typing. */
export function setUpCounters(root: ParentNode = document): void {
  for (const field of root.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('[data-limit]')) {
    const counter = document.getElementById(field.dataset.counter ?? '');
    const limit = Number(field.dataset.limit);
    if (!counter || !Number.isInteger(limit)) continue;
    const update = () => {
      counter.textContent = counterText(field.value.length, limit);
      counter.classList.toggle('over', field.value.length > limit);
    };
    field.addEventListener('input', update);
    update();
  }
}
