import { Body, Controller, HttpCode, HttpStatus, Post, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { JsonContentTypeGuard } from '../common/json-body';
import { ApiDepreciate } from './depreciation.docs';
import { DepreciationService } from './depreciation.service';
import { CalculateDepreciationDto } from './dto/calculate-depreciation.dto';
import { DepreciationResponseDto } from './dto/depreciation-response.dto';

@ApiTags('depreciation')
@Controller('api')
export class DepreciationController {
  constructor(private readonly depreciation: DepreciationService) {}

  @Post('depreciate')
  @HttpCode(HttpStatus.OK)
  @UseGuards(JsonContentTypeGuard)
  @ApiDepreciate()
  calculate(@Body() request: CalculateDepreciationDto): DepreciationResponseDto {
    return this.depreciation.calculate(request);
  }
}
