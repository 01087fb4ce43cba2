/** A JSON Schema (2020-12) or another JSON object of the document. */
export type JsonSchema = { [key: string]: unknown };

/** A `$ref` to a component. */
export interface Reference {
  $ref: string;
}

/** A request parameter (path, query or header). */
export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header';
  description?: string;
  required?: boolean;
  schema: JsonSchema;
}

/** A response header. */
export interface HeaderObject {
  description?: string;
  required?: boolean;
  schema: JsonSchema;
}

/** One media type of a request or response body. */
export interface MediaTypeObject {
  schema: JsonSchema;
  examples?: Record<string, { summary?: string; value: unknown }>;
}

/** One documented status of an operation. */
export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | Reference>;
  content?: Record<string, MediaTypeObject>;
}

/** One method on one path. */
export interface OperationObject {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security?: Record<string, string[]>[];
  parameters?: (ParameterObject | Reference)[];
  requestBody?: { required: boolean; description?: string; content: Record<string, MediaTypeObject> };
  responses: Record<string, ResponseObject>;
}

/** The OpenAPI 3.1 document of the Tidings HTTP API. */
export interface OpenApiDocument {
  openapi: '3.1.1';
  jsonSchemaDialect: string;
  info: { title: string; version: string; description: string; license: { name: string; identifier: string } };
  servers?: { url: string; description?: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Partial<Record<'get' | 'post', OperationObject>>>;
  components: {
    schemas: Record<string, JsonSchema>;
    headers: Record<string, HeaderObject>;
    parameters: Record<string, ParameterObject>;
    securitySchemes: Record<string, JsonSchema>;
  };
}
