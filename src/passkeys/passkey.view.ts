import { ApiProperty } from '@nestjs/swagger';
import {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import { Passkey } from './passkey.entity';
import { CreationOptionsModel, RequestOptionsModel } from './webauthn-options.view';

/*
 * How passkeys appear in answers: each class is the type the service returns and the schema in
 * the OpenAPI document. The key itself, its counter and its credential id never leave.
 */

export class PasskeyModel {
  @ApiProperty({ example: 'pk_3f9c2a7d41b08e65c1d2' })
  id!: string;

  @ApiProperty({ example: 'MacBook Touch ID' })
  name!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  last_used_at!: string | null;
}

export class PasskeyDataModel {
  @ApiProperty({ type: PasskeyModel })
  passkey!: PasskeyModel;
}

export class PasskeysDataModel {
  @ApiProperty({ type: [PasskeyModel], description: 'Oldest first.' })
  passkeys!: PasskeyModel[];
}

/** Registration's options (`startRegistration`); the challenge is good once, for five minutes. */
export class PasskeyCreationOptionsDataModel {
  @ApiProperty({ type: CreationOptionsModel })
  options!: PublicKeyCredentialCreationOptionsJSON;
}

/** A sign-in's or a second step's options (`startAuthentication`). */
export class PasskeyRequestOptionsDataModel {
  @ApiProperty({ type: RequestOptionsModel })
  options!: PublicKeyCredentialRequestOptionsJSON;
}

export function passkeyView(passkey: Passkey): PasskeyModel {
  return {
    id: passkey.id,
    name: passkey.name,
    created_at: passkey.createdAt.toISOString(),
    last_used_at: passkey.lastUsedAt?.toISOString() ?? null,
  };
}
