import './compile-cache';
// Before Nest loads: from here on SIGUSR1 cannot open the inspector (inspector-signal.ts).
import { reportInspectorSignal } from './common/inspector-signal';
import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { createApp } from './app.factory';
import { AppModule } from './app.module';
import { explainListenError } from './common/listen-error';
import { StartupRefusal } from './common/startup-refusal';
import { Environment } from './config/environment';
import { errorText } from './common/error-text';
import { stdoutDrained } from './logging/stdout-log';

async function bootstrap(): Promise<void> {
  const app = await createApp(AppModule, { shutDownOnSignals: true });
  reportInspectorSignal((message) => Logger.warn(message, 'Signals'));
  const config = app.get<ConfigService<Environment, true>>(ConfigService);
  const [port, host] = [config.get('PORT', { infer: true }), config.get('HOST', { infer: true })];
  await app.listen(port, host).catch((error: unknown) => {
    throw explainListenError(error, { host, port, hostVariable: 'HOST', portVariable: 'PORT' });
  });
  // Which runtime serves matters to operators: the project pins its own (the `node` package).
  Logger.log(
    `Listening on http://${host}:${port} (Node ${process.version}, pid ${process.pid})`,
    'Bootstrap',
  );
}

// Known start-up failures are one line for the operator; any other prints its stack.
bootstrap().catch(async (error: unknown) => {
  const bad = error instanceof StartupRefusal;
  console.error(bad ? error.message : `Failed to start: ${errorText(error, 'stack')}`);
  // The log's lines (written before the failure) are not lost to the exit.
  await stdoutDrained();
  process.exit(1);
});
