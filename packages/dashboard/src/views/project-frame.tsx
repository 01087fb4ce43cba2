/** @jsxImportSource hono/jsx */
import type { ProjectObject } from '@tidings/core';
import type { Child } from 'hono/jsx';
import { Clip } from './clip.js';
import { Layout, Notice, Time, usePage } from './layout.js';

/** The sections of a project, in the order of its tabs. */
export type ProjectTab =
  | 'keys'
  | 'usage'
  | 'log'
  | 'requests'
  | 'recipients'
  | 'live'
  | 'webhooks'
  | 'audit'
  | 'settings';

const TABS: { tab: ProjectTab; label: string; path: string }[] = [
  { tab: 'keys', label: 'API keys', path: '' },
  { tab: 'usage', label: 'Usage', path: '/usage' },
  { tab: 'log', label: 'Log of sends', path: '/log' },
  { tab: 'requests', label: 'Requests', path: '/requests' },
  { tab: 'recipients', label: 'Recipients', path: '/recipients' },
  { tab: 'live', label: 'Live', path: '/live' },
  { tab: 'webhooks', label: 'Webhooks', path: '/webhooks' },
  { tab: 'audit', label: 'Audit log', path: '/audit' },
  { tab: 'settings', label: 'Settings', path: '/settings' },
];

/** A project's page: its name, whether it is suspended, its tabs, and one section. */
export function ProjectFrame(props: { project: ProjectObject; tab: ProjectTab; title: string; children: Child }) {
  const ctx = usePage();
  const { project } = props;
  const root = `${ctx.base}/projects/${project.id}`;
  return (
    <Layout title={`${props.title} · ${project.name}`}>
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href={ctx.base}>Projects</a> / <Clip text={project.name} href={root} /> / {props.title}{' '}
        <code class="muted">{project.id}</code>
      </nav>
      <h1>
        {project.name}
        {project.suspended ? <span class="badge danger">suspended</span> : null}
      </h1>
      {project.suspended ? (
        <Notice kind="error">
          <p class="suspension">
            This project was suspended on <Time at={project.suspended_at} />
            {project.suspended_reason ? (
              <>
                : <strong>{project.suspended_reason}</strong>
              </>
            ) : (
              '.'
            )}
          </p>
          <p>
            Every API request with its keys is refused with 403 PROJECT_SUSPENDED, and its open streams are closed. Ask
            an operator to resume it.
          </p>
        </Notice>
      ) : null}
      <nav class="tabs" aria-label="Project">
        {TABS.map((item) => (
          <a href={`${root}${item.path}`} aria-current={item.tab === props.tab ? 'page' : undefined}>
            {item.label}
          </a>
        ))}
      </nav>
      {props.children}
    </Layout>
  );
}
