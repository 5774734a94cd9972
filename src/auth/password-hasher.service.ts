import { Injectable, OnModuleInit } from '@nestjs/common';
import * as bcrypt from 'bcryptjs';
import { SecurityConfig } from '../config/config.sections';
import { MAX_PASSWORD_BYTES } from '../common/validation/password.decorator';

@Injectable()
export class PasswordHasher implements OnModuleInit {
  /** A real hash at the configured cost: an unknown email costs as much as a wrong password. */
  private dummyHash = '';

  constructor(private readonly security: SecurityConfig) {}

  async onModuleInit(): Promise<void> {
    this.dummyHash = await bcrypt.hash('timing-equaliser', this.security.bcryptCost);
  }

  hash(password: string): Promise<string> {
    return bcrypt.hash(password, this.security.bcryptCost);
  }

  /**
   * False for a password longer than bcrypt reads: otherwise any string sharing the first 72
   * bytes would match. With no hash (unknown account) the dummy is compared, for equal timing.
   */
  async verify(password: string, hash: string | undefined): Promise<boolean> {
    const tooLong = Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES;
    const matches = await bcrypt.compare(password, hash ?? this.dummyHash);
    return matches && hash !== undefined && !tooLong;
  }
}
