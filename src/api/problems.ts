/** The error reference: every problem `type` URI points at an anchor of this page. */
import { PROBLEM_REFERENCE, PROBLEM_STATUSES, PROBLEM_TITLES, type ErrorKind } from '../errors.js';
import { defineRoute, file } from '../http/route.js';

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`).replace(/`([^`]+)`/g, '<code>$1</code>');

function page(): string {
  const kinds = Object.keys(PROBLEM_REFERENCE) as ErrorKind[];
  const items = kinds
    .map((k) => {
      const r = PROBLEM_REFERENCE[k];
      return `<section id="${r.slug}"><h2>${PROBLEM_STATUSES[k]} ${esc(PROBLEM_TITLES[k])} <small>(${r.slug})</small></h2><p>${esc(r.meaning)}</p><p><b>What to do:</b> ${esc(r.action)}</p></section>`;
    })
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error reference</title></head><body><h1>Error reference</h1><p>Every error is <code>application/problem+json</code> (RFC 9457) with <code>type</code> (a link to a section below), <code>title</code>, <code>status</code>, <code>detail</code>, <code>traceId</code>, and for validation failures <code>errors</code> (field name to messages).</p>${items}</body></html>`;
}

export const problemRoutes = [
  defineRoute({
    method: 'get',
    path: '/problems',
    operationId: 'getErrorReference',
    summary: 'Error reference: one section per problem type (the `type` URI of every error points at its anchor)',
    tag: 'Documentation',
    auth: 'public',
    responses: { 200: file('text/html', 'HTML page') },
    async handler() {
      return { status: 200, raw: { contentType: 'text/html; charset=utf-8', data: page() }, headers: { 'Cache-Control': 'public, max-age=3600' } };
    },
  }),
];
