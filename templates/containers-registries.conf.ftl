# Registries ${inventory_hostname} reaches over plain HTTP or without verifying TLS, written by
# provision (playbooks/cluster.yml, container_insecure_registries).
<#list container_insecure_registries![] as registry>
[[registry]]
location = "${registry}"
insecure = true
</#list>
