# ${inventory_hostname}: rendered by provision on the controller
name = ${inventory_hostname}
hostname = ${facts.hostname}
address = ${facts.default_ipv4}
groups = ${group_names?join(", ")}
