import { ApiProperty } from '@nestjs/swagger';

/*
 * How sessions appear in answers: each class is the type the service returns and the schema in
 * the OpenAPI document.
 */

/** One live session: a login and the refresh tokens rotated from it. */
export class SessionView {
  @ApiProperty({
    example: '1b4e28ba-2fa1-41d2-883f-0016d3cca427',
    description: 'The session id: the `sid` claim of its access tokens.',
  })
  id!: string;

  @ApiProperty({ format: 'date-time', description: 'When the session began: its login.' })
  created_at!: string;

  @ApiProperty({
    format: 'date-time',
    description: 'Its last token refresh (the login, if it has not been refreshed); to the second.',
  })
  last_used_at!: string;

  @ApiProperty({
    format: 'date-time',
    description:
      'When the session ends unless it is refreshed before: the earlier of its refresh ' +
      "token's expiry (its last refresh plus REFRESH_TOKEN_TTL) and its absolute end (its " +
      'login plus SESSION_MAX_AGE). A refresh moves it later, never past the absolute end; ' +
      'to the second.',
  })
  expires_at!: string;

  @ApiProperty({
    nullable: true,
    type: String,
    example: '203.0.113.7',
    description: 'The client IP at login, as TRUST_PROXY lets the service see it.',
  })
  ip!: string | null;

  @ApiProperty({
    nullable: true,
    type: String,
    example: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
    description: 'The User-Agent header at login, its first 255 characters.',
  })
  user_agent!: string | null;

  @ApiProperty({ description: 'The session of the access token this request was made with.' })
  current!: boolean;
}

export class SessionsDataModel {
  @ApiProperty({ type: [SessionView], description: 'Newest use first.' })
  sessions!: SessionView[];
}

export class EndedSessionDataModel {
  @ApiProperty({ description: 'The ended session was the current one: the cookies are cleared.' })
  current!: boolean;
}

export class EndedSessionsDataModel {
  @ApiProperty({ example: 2, description: 'How many sessions were ended.' })
  ended!: number;
}
