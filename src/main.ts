import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { enableGracefulShutdown } from './common/graceful-shutdown';
import { Environment, validateEnvironment } from './config/environment';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    bodyParser: false,
    bufferLogs: true,
    abortOnError: false,
  });
  configureApp(app);
  enableGracefulShutdown(app);
  const config = app.get<ConfigService<Environment, true>>(ConfigService);
  const [port, host] = [config.get('PORT', { infer: true }), config.get('HOST', { infer: true })];
  await app.listen(port, host);
  // Which runtime serves matters to operators: the project pins its own (the `node` package).
  Logger.log(
    `Listening on http://${host}:${port} (Node ${process.version}, pid ${process.pid})`,
    'Bootstrap',
  );
}

// A bad variable stops start-up with one line, before Nest logs anything; exiting here, in the
// first tick, also keeps ConfigModule's own (rejected) validation from being reported twice.
try {
  validateEnvironment(process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

bootstrap().catch((error: unknown) => {
  console.error(`Failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
