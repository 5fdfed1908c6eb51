/**
 * A request over a connection of its own, its answer as the wire carried it: the body undecoded (node:http decodes
 * nothing, where fetch would), and every byte the connection received, status line and headers included.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface WireAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Every byte received for this answer. */
  received: number;
}

export function onTheWire(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<WireAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers, agent: false }, (answer) => {
      const parts: Buffer[] = [];
      answer.on('data', (part: Buffer) => parts.push(part));
      answer.on('end', () => resolve({ status: answer.statusCode!, headers: answer.headers, body: Buffer.concat(parts), received: answer.socket.bytesRead }));
      answer.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}
