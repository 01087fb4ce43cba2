#!/usr/bin/env node
// Writes docs/openapi.json from the built package: the committed document is what the zod
// schemas generate with the default options. CI rebuilds it and fails when it differs.
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../dist/index.js';

const target = new URL('../../../docs/openapi.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
