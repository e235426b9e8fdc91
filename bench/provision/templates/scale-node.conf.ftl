# ${inventory_hostname}: written by provision (bench/provision/scale.yml)
name = ${inventory_hostname}
address = ${ansible_host}
index = ${play_hosts?seq_index_of(inventory_hostname)}
nodes = ${play_hosts?size}
