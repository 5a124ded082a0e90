import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { errorBody } from './error-body';

/** Every non-2xx answer, exactly: `{ statusCode, message }` (docs/contract.md, "Errors"). */
@ApiSchema({ name: 'ErrorResponse' })
class ErrorResponseDto {
  @ApiProperty({ description: 'Equals the HTTP status.', example: 400 })
  statusCode!: number;

  @ApiProperty({ example: 'Invalid input parameters' })
  message!: string;
}

/**
 * A documented error answer: the schema, and an example made by errorBody, the function every
 * writer of error bodies uses, so the document cannot show a message the service never sends.
 */
export const errorResponse = (status: number, message?: string) => ({
  status,
  type: ErrorResponseDto,
  example: errorBody(status, message),
});
