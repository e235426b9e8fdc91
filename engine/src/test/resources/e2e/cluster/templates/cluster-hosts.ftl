# All nodes of the cluster, as the inventory names them
<#list groups.cluster as node>
${hostvars[node].ansible_host} ${node}
</#list>
