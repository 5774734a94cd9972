import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { TokenPurpose, VerificationToken } from './verification-token.entity';
import { hashToken, randomToken } from './token-hash';

/** Emailed single-use tokens (email verification, password reset), stored only as hashes. */
@Injectable()
export class VerificationTokensService {
  /** Creates a token inside the caller's transaction and returns it in plain form, once. */
  async issue(
    manager: EntityManager,
    userId: string,
    purpose: TokenPurpose,
    ttlSeconds: number,
  ): Promise<string> {
    const token = randomToken();
    const now = new Date();
    await manager.insert(VerificationToken, {
      id: hashToken(token),
      userId,
      purpose,
      createdAt: now,
      expiresAt: new Date(now.getTime() + ttlSeconds * 1000),
      usedAt: null,
    });
    return token;
  }
}
