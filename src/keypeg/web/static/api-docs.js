// Starts Swagger UI on /docs from a file of this site's own: the page runs under a CSP with no inline script.
window.addEventListener("load", () => {
  window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true });
});
