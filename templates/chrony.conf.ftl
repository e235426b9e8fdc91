# chrony configuration of ${inventory_hostname}, written by provision (playbooks/cluster.yml).
# Edits here are undone by the next run; change the inventory (chrony_* variables) instead.
<#list chrony_servers![] as server>
server ${server} iburst
</#list>
<#list chrony_pools![] as pool>
pool ${pool} iburst
</#list>

# Where the servers' sources and NTS cookies go (Debian's layout).
sourcedir /etc/chrony/sources.d
confdir /etc/chrony/conf.d
keyfile /etc/chrony/chrony.keys
driftfile /var/lib/chrony/chrony.drift
ntsdumpdir /var/lib/chrony
logdir /var/log/chrony
maxupdateskew 100.0
leapsectz right/UTC

# Step the clock when it is off by more than the threshold, during the first updates only.
makestep ${chrony_makestep!"1.0 3"}
# Keep the hardware clock in step (the kernel's 11-minute mode).
rtcsync
<#list chrony_allow![] as subnet>
allow ${subnet}
</#list>
