import { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/**
 * `POST /auth/reauthenticate`: exactly one proof. The core names none: each way in adds the
 * field it checks (`proofField`), so an app without passkeys takes no `passkey`.
 */
export class ReauthenticateDto {
  [field: string]: unknown;
}

/** `POST /auth/mfa/verify`: the password step's challenge, and exactly one answer (added alike). */
export class SecondFactorVerifyDto {
  @ApiProperty({ description: "The password step's `challenge`.", maxLength: 256 })
  @IsString({ message: 'challenge must be a string' })
  @IsNotEmpty({ message: 'challenge must not be empty' })
  @MaxLength(256, { message: 'challenge must be at most 256 characters long' })
  challenge!: string;

  [field: string]: unknown;
}

const fieldsOf = new Map<Type, string[]>();

/**
 * A way in's field in one of the core's bodies, validated and documented by `decorators` as if
 * written in the class (`designType`: what TypeScript would have emitted for it). Called when the
 * way in's files load, before any request or document.
 */
export function proofField(
  body: Type,
  name: string,
  designType: Type | StringConstructor | ObjectConstructor,
  ...decorators: PropertyDecorator[]
): void {
  const fields = fieldsOf.get(body) ?? [];
  if (fields.includes(name)) return;
  fieldsOf.set(body, [...fields, name]);
  Reflect.defineMetadata('design:type', designType, body.prototype as object, name);
  for (const decorate of decorators) decorate(body.prototype as object, name);
}

/** The proofs a body takes, as the ways in added them: exactly one must be sent. */
export function proofFieldsOf(body: Type): string[] {
  return fieldsOf.get(body) ?? [];
}
