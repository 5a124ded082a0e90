import { Module } from '@nestjs/common';
import { DepreciationController } from './depreciation.controller';
import { DepreciationService } from './depreciation.service';

@Module({ controllers: [DepreciationController], providers: [DepreciationService] })
export class DepreciationModule {}
