import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** A value encrypted with AES-256-GCM: a fresh 12-byte nonce per write, and the 16-byte tag. */
export interface Sealed {
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

/**
 * Encrypts `plaintext` for `name`: the name is the additional authenticated data, so a value
 * copied to another name's row fails to decrypt rather than being read as that secret.
 */
export function seal(key: Buffer, name: string, plaintext: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(name, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv, ciphertext, tag: cipher.getAuthTag() };
}

/** The plaintext of a sealed value; throws when the key, the name or the bytes are not the ones it was sealed with. */
export function unseal(key: Buffer, name: string, sealed: Sealed): string {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv);
  decipher.setAAD(Buffer.from(name, 'utf8'));
  decipher.setAuthTag(sealed.tag);
  return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
}
