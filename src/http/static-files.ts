import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { Request, Response } from 'express';

const gzip = promisify(gzipCallback);

/**
 * The files of a page cronql serves itself (GraphiQL, the dashboard): rendered once in memory,
 * sent with a strict Content-Security-Policy and the usual hardening headers, gzipped on first
 * request and then from memory.
 */
export interface StaticFile {
  name: string;
  contentType: string;
  body: Buffer;
  etag: string;
}

export function staticFile(name: string, contentType: string, body: string | Buffer): StaticFile {
  const buf = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return { name, contentType, body: buf, etag: `"${createHash('sha256').update(buf).digest('base64url').slice(0, 27)}"` };
}

/** One version for a set of files: their URLs change whenever any content or option does, so they can be cached forever. */
export function versionOf(files: StaticFile[], options: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(options))
    .update(files.map((f) => f.etag).join())
    .digest('hex')
    .slice(0, 12);
}

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const gzipped = new WeakMap<StaticFile, Promise<Buffer>>();

export async function sendStaticFile(req: Request, res: Response, file: StaticFile, cacheControl: string, csp: string): Promise<void> {
  res.setHeader('Content-Type', file.contentType);
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Vary', 'Accept-Encoding');
  const compress = file.body.length > 1024 && req.acceptsEncodings('gzip', 'identity') === 'gzip';
  if (!compress) {
    res.setHeader('ETag', file.etag);
    res.send(file.body);
    return;
  }
  let body = gzipped.get(file);
  if (!body) {
    body = gzip(file.body, { level: 9 });
    gzipped.set(file, body);
  }
  res.setHeader('ETag', `${file.etag.slice(0, -1)}-gz"`);
  res.setHeader('Content-Encoding', 'gzip');
  res.send(await body);
}

/** Answers a failure while sending (the gzip promise): 500 before the headers, else cut the connection. */
export function failSend(res: Response, err: unknown): void {
  if (!res.headersSent) res.status(500).type('text/plain').send('internal error');
  else res.destroy(err as Error);
}
