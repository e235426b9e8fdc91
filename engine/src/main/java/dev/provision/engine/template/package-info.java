/**
 * Templates and expressions (FreeMarker): {@link dev.provision.engine.template.TemplateEngine}
 * renders template files from a search path, interpolates {@code ${...}} in YAML values keeping
 * native types, and evaluates bare conditions; {@link dev.provision.engine.template.TemplateException}
 * is every failure, as one line with its position. Strict about undefined values and sandboxed:
 * templates see plain data only.
 */
package dev.provision.engine.template;
