/**
 * Reading a request's body within a limit. A body that says it is longer is refused unread, and one that proves
 * longer as it arrives is read no further: the answer (413) closes the connection rather than take in the rest.
 */
import type { IncomingMessage } from 'node:http';

export function readBody(request: IncomingMessage, limit: number): Promise<Uint8Array | 'too-large'> {
  if (Number(request.headers['content-length']) > limit) return Promise.resolve('too-large');
  return new Promise((resolve, reject) => {
    const received: Buffer[] = [];
    let length = 0;
    const take = (chunk: Buffer) => {
      length += chunk.byteLength;
      if (length <= limit) {
        received.push(chunk);
        return;
      }
      request.pause();
      request.off('data', take);
      resolve('too-large');
    };
    request.on('data', take);
    request.once('end', () => resolve(Buffer.concat(received, length)));
    request.on('error', reject);
    // A promise settles once: after the end, this changes nothing; before it, the client went away mid-body.
    request.once('close', () => reject(new Error('the request was closed before its body ended')));
  });
}
