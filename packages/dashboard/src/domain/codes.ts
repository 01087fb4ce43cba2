import { randomInt } from 'node:crypto';
import { hashSecret } from '@tidings/core';
import type { EmailCodePurpose } from '../store.js';

/** A one-time code: six digits drawn uniformly from the CSPRNG. */
export function generateCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0');
}

/**
 * How a code is stored: the SHA-256 of its purpose, its email and itself, so that a code is
 * good for one address and one purpose only. Six digits hash quickly; what keeps them safe is
 * that each lives 15 minutes and allows 5 tries.
 */
export function hashCode(purpose: EmailCodePurpose, email: string, code: string): string {
  return hashSecret(`${purpose}\n${email}\n${code}`);
}

/** Emails as stored and compared: trimmed and lower-cased. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
