/** @jsxImportSource hono/jsx */
import type { ProjectObject } from '@tidings/core';
import { Notice, usePage } from './layout.js';
import { ProjectFrame } from './project-frame.js';

/** The live view: sends and attempt changes as they happen, streamed by the server. */
export function LivePage(props: { project: ProjectObject }) {
  const ctx = usePage();
  const { project } = props;
  const root = `${ctx.base}/projects/${project.id}`;
  return (
    <ProjectFrame project={project} tab="live" title="Live">
      <h2>Live</h2>
      <p class="muted">
        The newest sends of this project, updated as they happen: a new send appears on top, and each attempt’s status
        changes in place (accepted → sent → delivered, or failed / expired).
      </p>
      <noscript>
        <Notice kind="info">
          The live view needs JavaScript. The <a href={`${root}/log`}>log of sends</a> shows the same, on reload.
        </Notice>
      </noscript>
      <p id="live-status" class="count" role="status" data-status="connecting">
        Connecting…
      </p>
      <ul
        id="live-list"
        class="live-list"
        data-stream={`${root}/live/stream`}
        data-notification-base={`${root}/notifications/`}
        data-project-root={root}
        aria-live="polite"
      />
    </ProjectFrame>
  );
}
