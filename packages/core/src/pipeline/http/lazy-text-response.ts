import { delegateToFull } from './lazy-web-object.js';

/**
 * A `Response` made from text whose Web objects (its `Headers`, its body stream, the `Response`
 * itself) are built only if something reads more than its status. A host that writes the core's
 * text answers itself (`@tidings/core/node`, through `textAnswerOf`) asks for these with
 * `RequestContext.writesTextAnswers`, and then never pays for objects it does not read; to
 * anything else it is a whole `Response` (its prototype is `Response.prototype`, and every
 * member answers from the full one, built once).
 */
export class LazyTextResponse {
  readonly #headers: Readonly<Record<string, string>>;
  readonly #text: string;
  #full: Response | undefined;

  constructor(
    readonly status: number,
    headers: Readonly<Record<string, string>>,
    text: string,
  ) {
    this.#headers = headers;
    this.#text = text;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /** The full `Response`, built once, for every member this class does not answer itself. */
  full(): Response {
    this.#full ??= new Response(this.#text, { status: this.status, headers: this.#headers });
    return this.#full;
  }

  static {
    delegateToFull(LazyTextResponse.prototype, Response.prototype);
  }
}
