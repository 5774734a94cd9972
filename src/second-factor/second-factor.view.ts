import { ApiProperty } from '@nestjs/swagger';
import { RECOVERY_CODES } from './recovery-codes';

/*
 * How the second factor appears in answers: each class is the type the service returns and the
 * schema in the OpenAPI document.
 */

export class SecondFactorStatusModel {
  @ApiProperty({ description: 'Two-step sign-in with an authenticator app is on.' })
  totp!: boolean;

  @ApiProperty({ example: 10, description: 'Unused recovery codes.' })
  recovery_codes_left!: number;
}

export class TotpEnrolmentModel {
  @ApiProperty({
    example: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
    description: 'Base32, for typing into an app by hand. SHA-1, 6 digits, 30 s.',
  })
  secret!: string;

  @ApiProperty({
    example: 'otpauth://totp/Auth%20Service:ann%40example.com?issuer=Auth%20Service&secret=…',
  })
  otpauth_url!: string;

  @ApiProperty({
    example: 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0…',
    description: 'The otpauth URI as a QR code: an SVG data URL an <img> shows as it is.',
  })
  qr_svg!: string;
}

export class RecoveryCodesModel {
  @ApiProperty({
    type: [String],
    minItems: RECOVERY_CODES,
    maxItems: RECOVERY_CODES,
    // All of them: an example the schema refuses fails the OpenAPI lints.
    example: [
      'K7QXM-4PZRT',
      'W2HNC-8YDVF',
      'B3JTS-9MKWQ',
      'R6ZPD-2HXCN',
      'F8VKA-5TRJM',
      'N4CWY-7QBGE',
      'H9SMX-3DZUP',
      'T5GRB-6WNKA',
      'Y2PEV-8JCHS',
      'D7UQF-4MXRZ',
    ],
    description: 'Shown this once: each signs in once in place of a code.',
  })
  recovery_codes!: string[];
}

export class SecondFactorChallengeModel {
  @ApiProperty({ enum: [true] })
  mfa_required!: true;

  @ApiProperty({ description: 'Single use, five minutes: send it to POST /auth/mfa/verify.' })
  challenge!: string;

  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: ['passkey', 'totp', 'recovery_code'] },
    example: ['totp', 'recovery_code'],
    description:
      'How the second step can be answered: `passkey` (a passkey of the account: `POST ' +
      '/auth/mfa/passkey/options`), `totp` and `recovery_code`.',
  })
  methods!: string[];
}

/** Login's answer while a second step is pending: no cookies, no tokens; only it has `data.mfa_required`. */
export class SecondFactorChallengeEnvelopeModel {
  @ApiProperty({ enum: [true] })
  success!: true;

  @ApiProperty({ example: 'Second factor required' })
  message!: string;

  @ApiProperty({ type: SecondFactorChallengeModel })
  data!: SecondFactorChallengeModel;
}
