// Before Nest loads: from here on SIGUSR1 cannot open the inspector (inspector-signal.ts).
import { reportInspectorSignal } from './common/inspector-signal';
import { Logger } from '@nestjs/common';
import { explainListenError } from './common/listen-error';
import { StartupRefusal } from './common/startup-refusal';
import { validateEnvironment } from './config/environment';
import { errorText } from './common/error-text';
import { stdoutDrained } from './logging/stdout-log';
import { tracingSettings } from './tracing/tracing-settings';

async function bootstrap(): Promise<void> {
  // A bad setting is refused before the application's modules load, in a fraction of the start;
  // AppModule validates the same way again, for the apps tests make without main.ts.
  const { PORT: port, HOST: host, WARM_UP_MS } = validateEnvironment(process.env);
  tracingSettings(process.env);
  // One at a time: require(esm) refuses a module that a concurrent import() is still loading.
  const { createApp } = await import('./app.factory.js');
  const { AppModule } = await import('./app.module.js');
  const { warmUp } = await import('./warm-up.js');
  const { ShutdownState } = await import('./health/health.controller.js');
  const app = await createApp(AppModule, { shutDownOnSignals: true });
  reportInspectorSignal((message) => Logger.warn(message, 'Signals'));
  await warmUp(app, WARM_UP_MS);
  // A stop signal during the warm-up: the shutdown is under way, nothing to listen for.
  if (app.get(ShutdownState).draining) return;
  await app.listen(port, host).catch((error: unknown) => {
    throw explainListenError(error, { host, port, prefix: '' });
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
