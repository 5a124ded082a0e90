import 'reflect-metadata';
import { additionsNamed } from '../src/additions';
import { createApp } from '../src/app.factory';
import { AppModule } from '../src/app.module';

/**
 * The service without the additions named in its arguments (src/additions.ts), for the ablation
 * (bench/ablation.ts): `node dist-bench/bench/variant.js request-log metrics`. No argument: the
 * whole service, as main.ts builds it. PORT and HOST as for the service.
 */
void createApp(AppModule, { without: additionsNamed(process.argv.slice(2)) }).then((app) =>
  app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1'),
);
