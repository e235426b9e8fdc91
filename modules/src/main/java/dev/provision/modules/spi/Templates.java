package dev.provision.modules.spi;

/** Controller-side template rendering, sandboxed and strict about undefined values. */
public interface Templates {
    /**
     * @param name a template name relative to the template search path (e.g. {@code chrony.conf.ftl})
     * @throws ModuleException when the template is missing or fails to render; the message names
     *     the template, line and column
     */
    String render(String name) throws ModuleException;
}
