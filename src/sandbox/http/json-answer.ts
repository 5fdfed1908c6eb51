/**
 * Every JSON answer of the sandbox, the service's envelopes and the control API's bodies alike: its length
 * given, never cached nor sniffed, and nothing written to a client that is already gone.
 */
import type { ServerResponse } from 'node:http';

const JSON_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.destroyed) return;
  const text = JSON.stringify(body);
  const length = { 'Content-Length': String(Buffer.byteLength(text)) };
  // A body refused unread (413) may still be arriving: the connection is closed rather than read to the end.
  const closing = status === 413 ? { Connection: 'close' } : {};
  response.writeHead(status, { ...JSON_HEADERS, ...headers, ...length, ...closing });
  response.end(text);
}
