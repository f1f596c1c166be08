#!/usr/bin/env bash
echo "serving $MODEL"
