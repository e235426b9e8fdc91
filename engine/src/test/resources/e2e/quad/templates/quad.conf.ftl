# rendered for ${inventory_hostname}
<#list servers as s>
server ${s} iburst
</#list>
