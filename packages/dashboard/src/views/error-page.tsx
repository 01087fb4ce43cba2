/** @jsxImportSource hono/jsx */
import { Layout, Notice, usePage } from './layout.js';

/** A refusal or failure, with the contract's code so that scripts and people can tell it apart. */
export function ErrorPage(props: { title: string; code: string; message: string }) {
  const ctx = usePage();
  return (
    <Layout title={props.title}>
      <section class="card narrow">
        <h1>{props.title}</h1>
        <Notice kind="error">
          <span data-code={props.code}>{props.message}</span>
        </Notice>
        <p class="muted">
          Code <code>{props.code}</code>
        </p>
        <p>
          <a href={ctx.email ? ctx.base : `${ctx.base}/login`}>Back to the dashboard</a>
        </p>
      </section>
    </Layout>
  );
}
