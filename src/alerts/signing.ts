import { createHmac } from 'node:crypto';

/**
 * Webhook signatures. Standard Webhooks (https://www.standardwebhooks.com, the spec's "Signature
 * scheme"): `webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`,
 * the timestamp in seconds since the epoch; a receiver refuses a timestamp far from its clock
 * (the spec's example tolerance: 5 minutes), which is what makes a captured alert unreplayable.
 * And the signature the env webhook always had: `X-Cronql-Signature: sha256=<hex HMAC of the body>`.
 */

/** The prefix of a Standard Webhooks secret: `whsec_<base64 of the key bytes>`. */
export const WHSEC = 'whsec_';

/**
 * The HMAC key of a channel's secret: `whsec_<base64>` as the spec writes it (the decoded bytes);
 * any other secret is used as its UTF-8 bytes (a plain shared secret, as the env webhook's).
 */
export function signingKey(secret: string): Buffer {
  return secret.startsWith(WHSEC) ? Buffer.from(secret.slice(WHSEC.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** `v1,<base64 signature>` of one delivery attempt. */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', signingKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The env webhook's signature of the body: `sha256=<hex>`, keyed by the secret's text as always. */
export function legacySignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
