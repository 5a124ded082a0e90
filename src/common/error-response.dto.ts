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

/** The example is made by errorBody, so the document cannot show a message never sent. */
export const errorResponse = (status: number, message?: string) => ({
  status,
  type: ErrorResponseDto,
  example: errorBody(status, message),
});
