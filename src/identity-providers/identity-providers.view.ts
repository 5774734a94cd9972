import { ApiProperty } from '@nestjs/swagger';

/* How providers and linked identities appear in answers (and the OpenAPI document). */

export class ProviderModel {
  @ApiProperty({ example: 'google', description: 'Used in the provider routes.' })
  id!: string;

  @ApiProperty({ example: 'Google', description: 'What a sign-in button says.' })
  name!: string;
}

export class ProvidersDataModel {
  @ApiProperty({ type: [ProviderModel], description: 'In AUTH_PROVIDERS order.' })
  providers!: ProviderModel[];
}

export class SsoStartDataModel {
  @ApiProperty({ example: 'acme', description: 'The provider that signs this domain in.' })
  provider!: string;

  @ApiProperty({
    format: 'uri',
    description:
      "Where to send the browser (a top-level navigation): the provider's start route, which " +
      'binds the flow to the browser and goes on to the provider.',
  })
  url!: string;
}
