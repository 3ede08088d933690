// Renders the served OpenAPI document with Redoc (bundled, served by this service: no CDN).
Redoc.init('/v1/openapi.json', { hideDownloadButton: false, expandResponses: '200,201,202', jsonSampleExpandLevel: 3 }, document.getElementById('redoc'));
