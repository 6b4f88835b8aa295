#!/bin/bash
# capture reference answers for services; each call writes NAME.txt with status+headers+body
S=/work/ref/docker.sock
O=/tmp/refsvc/out; mkdir -p $O
c() { # name method path [body]
  local name=$1 m=$2 p=$3 b=$4
  if [ -n "$b" ]; then curl -s -i --unix-socket $S -X $m -H 'Content-Type: application/json' -d "$b" "http://x$p" > $O/$name.txt
  else curl -s -i --unix-socket $S -X $m "http://x$p" > $O/$name.txt; fi
  echo "== $name"; head -c 600 $O/$name.txt | grep -v '^Date\|^Server\|^Api\|^Docker\|^Ostype' ; echo
}
export DOCKER_HOST=unix://$S
c pre_services GET /v1.24/services
docker swarm init --advertise-addr 127.0.0.1 > $O/init.txt 2>&1
c svc_create POST /v1.24/services/create '{"Name":"web","Labels":{"a":"b"},"TaskTemplate":{"ContainerSpec":{"Image":"busybox","Command":["sleep","1000"],"Labels":{"cl":"1"},"Env":["X=1"]}},"Mode":{"Replicated":{"Replicas":2}},"EndpointSpec":{"Ports":[{"Protocol":"tcp","TargetPort":80}]}}'
c svc_create_dup POST /v1.24/services/create '{"Name":"web","TaskTemplate":{"ContainerSpec":{"Image":"busybox"}}}'
c svc_create_noimage POST /v1.24/services/create '{"Name":"noimg","TaskTemplate":{"ContainerSpec":{}}}'
c svc_create_empty POST /v1.24/services/create '{}'
c svc_create_nobody POST /v1.24/services/create ''
c svc_create_badjson POST /v1.24/services/create '{"Name":'
c svc_create_negrep POST /v1.24/services/create '{"Name":"neg","TaskTemplate":{"ContainerSpec":{"Image":"busybox"}},"Mode":{"Replicated":{"Replicas":-1}}}'
c svc_create_badconstraint POST /v1.24/services/create '{"Name":"bc","TaskTemplate":{"ContainerSpec":{"Image":"busybox"},"Placement":{"Constraints":["node.role"]}}}'
c svc_create_badconstraint2 POST /v1.24/services/create '{"Name":"bc2","TaskTemplate":{"ContainerSpec":{"Image":"busybox"},"Placement":{"Constraints":["node.foo==x"]}}}'
c svc_create_unknownnet POST /v1.24/services/create '{"Name":"un","TaskTemplate":{"ContainerSpec":{"Image":"busybox"}},"Networks":[{"Target":"nosuchnet"}]}'
c svc_create_badname POST /v1.24/services/create '{"Name":"bad_name!","TaskTemplate":{"ContainerSpec":{"Image":"busybox"}}}'
c svc_create_bothmodes POST /v1.24/services/create '{"Name":"bm","TaskTemplate":{"ContainerSpec":{"Image":"busybox"}},"Mode":{"Replicated":{"Replicas":1},"Global":{}}}'
c svc_create_badport POST /v1.24/services/create '{"Name":"bp","TaskTemplate":{"ContainerSpec":{"Image":"busybox"}},"EndpointSpec":{"Ports":[{"Protocol":"tcp","TargetPort":80,"PublishedPort":70000}]}}'
c svc_create_badproto POST /v1.24/services/create '{"Name":"bpr","TaskTemplate":{"ContainerSpec":{"Image":"busybox"}},"EndpointSpec":{"Ports":[{"Protocol":"xyz","TargetPort":80}]}}'
c svc_create_badmode POST /v1.24/services/create '{"Name":"bem","TaskTemplate":{"ContainerSpec":{"Image":"busybox"}},"EndpointSpec":{"Mode":"foo"}}'
c svc_create_dnsrrports POST /v1.24/services/create '{"Name":"dp","TaskTemplate":{"ContainerSpec":{"Image":"busybox"}},"EndpointSpec":{"Mode":"dnsrr","Ports":[{"Protocol":"tcp","TargetPort":80,"PublishedPort":8080}]}}'
c svc_create_noname POST /v1.24/services/create '{"TaskTemplate":{"ContainerSpec":{"Image":"busybox","Command":["sleep","1000"]}},"Mode":{"Replicated":{"Replicas":0}}}'
c svc_create_portinuse POST /v1.24/services/create '{"Name":"piu","TaskTemplate":{"ContainerSpec":{"Image":"busybox"}},"EndpointSpec":{"Ports":[{"Protocol":"tcp","TargetPort":81,"PublishedPort":'$(curl -s --unix-socket $S http://x/v1.24/services/web | python3 -c 'import json,sys; print(json.load(sys.stdin)["Endpoint"]["Ports"][0]["PublishedPort"])')'}]}}'
c svc_create_pending POST /v1.24/services/create '{"Name":"pend","TaskTemplate":{"ContainerSpec":{"Image":"busybox","Command":["sleep","1000"]},"Placement":{"Constraints":["node.labels.x==y"]}},"Mode":{"Replicated":{"Replicas":1}}}'
c svc_create_global POST /v1.24/services/create '{"Name":"glob","TaskTemplate":{"ContainerSpec":{"Image":"busybox","Command":["sleep","1000"]}},"Mode":{"Global":{}}}'
c svc_create_fail POST /v1.24/services/create '{"Name":"fail","TaskTemplate":{"ContainerSpec":{"Image":"busybox","Command":["sh","-c","exit 3"]},"RestartPolicy":{"Condition":"on-failure","Delay":100000000,"MaxAttempts":2}},"Mode":{"Replicated":{"Replicas":1}}}'
c svc_create_ports POST /v1.24/services/create '{"Name":"ports","TaskTemplate":{"ContainerSpec":{"Image":"busybox","Command":["sleep","1000"]}},"EndpointSpec":{"Ports":[{"TargetPort":80,"PublishedPort":8081},{"Protocol":"udp","TargetPort":53}]}}'
c svc_create_full POST /v1.24/services/create '{"Name":"full","Labels":{"l":"v"},"TaskTemplate":{"ContainerSpec":{"Image":"busybox","Command":["sleep"],"Args":["1000"],"Env":["A=1"],"Dir":"/tmp","User":"root","Labels":{"x":"y"},"Mounts":[{"Type":"volume","Source":"vol1","Target":"/data"}],"StopGracePeriod":3000000000},"Resources":{"Limits":{"NanoCPUs":500000000,"MemoryBytes":104857600},"Reservations":{"MemoryBytes":1048576}},"RestartPolicy":{"Condition":"any","Delay":1000000000,"MaxAttempts":0,"Window":0},"Placement":{"Constraints":["node.role==manager"]},"LogDriver":{"Name":"json-file","Options":{"max-size":"1m"}}},"Mode":{"Replicated":{"Replicas":1}},"UpdateConfig":{"Parallelism":1,"Delay":1000000000,"FailureAction":"pause"},"EndpointSpec":{"Mode":"vip"}}'
sleep 6
c svc_list GET /v1.24/services
c svc_list_v123 GET /v1.23/services
c svc_list_name GET '/v1.24/services?filters=%7B%22name%22%3A%5B%22we%22%5D%7D'
c svc_list_label GET '/v1.24/services?filters=%7B%22label%22%3A%5B%22a%3Db%22%5D%7D'
c svc_list_label2 GET '/v1.24/services?filters=%7B%22label%22%3A%5B%22a%22%5D%7D'
c svc_list_badfilter GET '/v1.24/services?filters=%7B%22foo%22%3A%5B%22a%22%5D%7D'
c svc_list_mode GET '/v1.24/services?filters=%7B%22mode%22%3A%5B%22global%22%5D%7D'
c svc_inspect_web GET /v1.24/services/web
c svc_inspect_full GET /v1.24/services/full
c svc_inspect_ports GET /v1.24/services/ports
c svc_inspect_glob GET /v1.24/services/glob
c svc_inspect_pend GET /v1.24/services/pend
c svc_inspect_missing GET /v1.24/services/nosuch
WID=$(curl -s --unix-socket $S http://x/v1.24/services/web | python3 -c 'import json,sys; print(json.load(sys.stdin)["ID"])')
c svc_inspect_prefix GET /v1.24/services/${WID:0:5}
c svc_list_id GET "/v1.24/services?filters=%7B%22id%22%3A%5B%22${WID:0:5}%22%5D%7D"
c tasks_web GET "/v1.24/tasks?filters=%7B%22service%22%3A%5B%22web%22%5D%7D"
c tasks_pend GET "/v1.24/tasks?filters=%7B%22service%22%3A%5B%22pend%22%5D%7D"
c tasks_fail GET "/v1.24/tasks?filters=%7B%22service%22%3A%5B%22fail%22%5D%7D"
c tasks_glob GET "/v1.24/tasks?filters=%7B%22service%22%3A%5B%22glob%22%5D%7D"
c tasks_full GET "/v1.24/tasks?filters=%7B%22service%22%3A%5B%22full%22%5D%7D"
c tasks_all GET "/v1.24/tasks"
c tasks_bad_service GET "/v1.24/tasks?filters=%7B%22service%22%3A%5B%22nosuch%22%5D%7D"
c tasks_desired GET "/v1.24/tasks?filters=%7B%22desired-state%22%3A%5B%22shutdown%22%5D%7D"
docker ps -a --no-trunc > $O/ps.txt
for id in $(docker ps -aq); do docker inspect $id; done > $O/containers.json
V=$(curl -s --unix-socket $S http://x/v1.24/services/web | python3 -c 'import json,sys; print(json.load(sys.stdin)["Version"]["Index"])')
c svc_update_noversion POST /v1.24/services/web/update '{"Name":"web","TaskTemplate":{"ContainerSpec":{"Image":"busybox","Command":["sleep","1000"]}},"Mode":{"Replicated":{"Replicas":3}}}'
c svc_update_stale POST "/v1.24/services/web/update?version=$((V-1))" '{"Name":"web","TaskTemplate":{"ContainerSpec":{"Image":"busybox","Command":["sleep","1000"]}},"Mode":{"Replicated":{"Replicas":3}}}'
c svc_update_badver POST "/v1.24/services/web/update?version=abc" '{"Name":"web","TaskTemplate":{"ContainerSpec":{"Image":"busybox","Command":["sleep","1000"]}},"Mode":{"Replicated":{"Replicas":3}}}'
c svc_update_rename POST "/v1.24/services/web/update?version=$V" '{"Name":"web2","TaskTemplate":{"ContainerSpec":{"Image":"busybox","Command":["sleep","1000"]}},"Mode":{"Replicated":{"Replicas":3}}}'
c svc_update_modechange POST "/v1.24/services/web/update?version=$V" '{"Name":"web","TaskTemplate":{"ContainerSpec":{"Image":"busybox","Command":["sleep","1000"]}},"Mode":{"Global":{}}}'
c svc_update_missing POST "/v1.24/services/nosuch/update?version=1" '{"Name":"nosuch","TaskTemplate":{"ContainerSpec":{"Image":"busybox"}}}'
c svc_update_ok POST "/v1.24/services/web/update?version=$V" '{"Name":"web","Labels":{"a":"b"},"TaskTemplate":{"ContainerSpec":{"Image":"busybox","Command":["sleep","1001"]}},"Mode":{"Replicated":{"Replicas":3}},"UpdateConfig":{"Parallelism":1,"Delay":1000000000},"EndpointSpec":{"Ports":[{"Protocol":"tcp","TargetPort":80}]}}'
c svc_inspect_web_updating GET /v1.24/services/web
sleep 5
c svc_inspect_web_updated GET /v1.24/services/web
c tasks_web_after GET "/v1.24/tasks?filters=%7B%22service%22%3A%5B%22web%22%5D%7D"
docker ps -a --no-trunc > $O/ps2.txt
NID=$(docker info --format '{{.Swarm.NodeID}}')
docker node update --availability drain $NID
sleep 3
c tasks_drained GET "/v1.24/tasks?filters=%7B%22service%22%3A%5B%22glob%22%5D%7D"
c tasks_drained_web GET "/v1.24/tasks?filters=%7B%22service%22%3A%5B%22web%22%5D%7D"
docker node update --availability active $NID
c svc_delete_missing DELETE /v1.24/services/nosuch
c svc_delete_web DELETE /v1.24/services/web
c svc_delete_again DELETE /v1.24/services/web
c tasks_after_delete GET "/v1.24/tasks"
sleep 2
docker ps -a --no-trunc > $O/ps3.txt
c events_dummy GET "/v1.24/services"
for s in full ports glob pend fail; do curl -s --unix-socket $S -X DELETE http://x/v1.24/services/$s >/dev/null; done
docker swarm leave --force > $O/leave.txt 2>&1
sleep 2
docker ps -aq | xargs -r docker rm -f >/dev/null
docker volume rm vol1 >/dev/null 2>&1
docker info --format '{{.Swarm.LocalNodeState}}'
