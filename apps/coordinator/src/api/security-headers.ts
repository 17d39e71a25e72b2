import helmet from 'helmet';

/**
 * Headers on every response: no X-Powered-By, nosniff, no framing, no referrer, and a Content Security Policy
 * that lets the docs and Bull Board load their own scripts and styles and nothing from elsewhere. (The board
 * asks for a web font from another origin; it is refused and the page falls back to a local font.)
 */
export function securityHeaders() {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  });
}
