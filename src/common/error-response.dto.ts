import { ApiProperty, ApiSchema } from '@nestjs/swagger';

/** Every non-2xx answer, exactly: `{ statusCode, message }` (docs/contract.md, "Errors"). */
@ApiSchema({ name: 'ErrorResponse' })
export class ErrorResponseDto {
  @ApiProperty({ description: 'Equals the HTTP status.', example: 400 })
  statusCode!: number;

  @ApiProperty({ example: 'Invalid input parameters' })
  message!: string;
}
