export { buildOpenApiDocument, type OpenApiDocumentOptions } from './document.js';
export type * from './types.js';
