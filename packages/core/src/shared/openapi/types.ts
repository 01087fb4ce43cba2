/** A JSON Schema (2020-12) or another JSON object of the document. */
export type JsonSchema = { [key: string]: unknown };

/** A `$ref` to a component. */
export interface OpenApiReference {
  $ref: string;
}

/** A request parameter (path, query or header). */
export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  description?: string;
  required?: boolean;
  schema: JsonSchema;
}

/** A response header. */
export interface OpenApiHeader {
  description?: string;
  required?: boolean;
  schema: JsonSchema;
}

/** One media type of a request or response body. */
export interface OpenApiMediaType {
  schema: JsonSchema;
  examples?: Record<string, { summary?: string; value: unknown }>;
}

/** One documented status of an operation. */
export interface OpenApiResponse {
  description: string;
  headers?: Record<string, OpenApiHeader | OpenApiReference>;
  content?: Record<string, OpenApiMediaType>;
}

/** One method on one path. */
export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security?: Record<string, string[]>[];
  parameters?: (OpenApiParameter | OpenApiReference)[];
  requestBody?: { required: boolean; description?: string; content: Record<string, OpenApiMediaType> };
  responses: Record<string, OpenApiResponse>;
}

/** The OpenAPI 3.1 document of the Tidings HTTP API. */
export interface OpenApiDocument {
  openapi: '3.1.1';
  jsonSchemaDialect: string;
  info: { title: string; version: string; description: string; license: { name: string; identifier: string } };
  servers?: {
    url: string;
    description?: string;
    variables?: Record<string, { default: string; description?: string }>;
  }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Partial<Record<'get' | 'post' | 'put' | 'delete', OpenApiOperation>>>;
  /** What the server sends to the project's webhook endpoints, by event type. */
  webhooks: Record<string, { post: OpenApiOperation }>;
  components: {
    schemas: Record<string, JsonSchema>;
    headers: Record<string, OpenApiHeader>;
    parameters: Record<string, OpenApiParameter>;
    securitySchemes: Record<string, JsonSchema>;
  };
}
